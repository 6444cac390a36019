terraform {
  backend "local" {}
}

variable "disks" {
  type = number
}

module "bucket" {
  source = "../modules/bucket"
  name   = "backups-${terraform.workspace}"
  disks  = var.disks
}
