# Production only: its buckets are never replaced, whatever the reason.
package prod.buckets

import rego.v1

deny_replace contains msg if {
  some change in input.resource_changes
  change.type == "terraform_data"
  "delete" in change.change.actions
  "create" in change.change.actions
  msg := sprintf("%s would be replaced in production", [change.address])
}
