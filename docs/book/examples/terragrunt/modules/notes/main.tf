variable "greeting" {
  type = string
}

resource "terraform_data" "notes" {
  input = var.greeting
}
