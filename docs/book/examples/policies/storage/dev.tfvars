replicas = 1
