terraform {
  backend "local" {}
}

resource "terraform_data" "vpc" {
  input = { cidr = "10.20.0.0/16" }
}
