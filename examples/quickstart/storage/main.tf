terraform {
  backend "local" {}
}

variable "env" {
  type = string
}

# Never shown by Sluiceway.
variable "secret" {
  type      = string
  sensitive = true
  default   = "CANARY-SECRET"
}

resource "terraform_data" "bucket" {
  input = {
    name   = "${var.env}-assets"
    secret = var.secret
  }
}

resource "terraform_data" "lifecycle" {
  input = "expire after 30 days"
}
