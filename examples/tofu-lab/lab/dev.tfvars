env = "dev"
