terraform {
  backend "local" {}
}

variable "cidr" {
  type    = string
  default = "10.20.0.0/16"
}

resource "terraform_data" "vpc" {
  input = {
    cidr = var.cidr
  }
}

resource "terraform_data" "subnets" {
  input            = [cidrsubnet(var.cidr, 8, 1), cidrsubnet(var.cidr, 8, 2)]
  triggers_replace = [var.cidr]
}

output "vpc" {
  value = terraform_data.vpc.output
}
