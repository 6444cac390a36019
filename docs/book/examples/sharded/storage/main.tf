terraform {
  backend "local" {}
}

variable "replicas" {
  type = number
}

resource "terraform_data" "bucket" {
  input = { replicas = var.replicas }
}
