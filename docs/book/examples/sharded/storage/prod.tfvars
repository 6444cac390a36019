replicas = 3
