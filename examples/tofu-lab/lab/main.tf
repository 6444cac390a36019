terraform {
  backend "local" {}
}

variable "env" {
  type = string
}

variable "motd" {
  type    = string
  default = "hello"
}

variable "notes" {
  type    = string
  default = "first notes"
}

# Marked sensitive, and never shown by Sluiceway, marked or not.
variable "secret" {
  type      = string
  sensitive = true
  default   = "CANARY-SECRET"
}

# Changes in place: a new input is an update.
resource "terraform_data" "config" {
  input = {
    greeting = var.motd
    canary   = "CANARY-VALUE"
    secret   = var.secret
  }
}

resource "terraform_data" "name" {
  input = "${var.env}-lab"
}

# A new value of a replacing trigger is a replace.
resource "terraform_data" "notes" {
  input            = "CANARY-VALUE ${var.notes}"
  triggers_replace = [var.notes]
}

resource "terraform_data" "trigger" {
  triggers_replace = {
    secret = var.secret
  }
}

output "name" {
  value = terraform_data.name.output
}
