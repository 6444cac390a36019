variable "name" {
  type = string
}

variable "disks" {
  type = number
}

resource "terraform_data" "bucket" {
  input = {
    name  = var.name
    disks = var.disks
  }
}
