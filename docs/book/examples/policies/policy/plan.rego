# Every stack: a delete needs a person to look twice, and a create is worth a line
# in the job log.
package plan

import rego.v1

deny contains msg if {
  some change in input.resource_changes
  "delete" in change.change.actions
  msg := sprintf("%s must not be deleted", [change.address])
}

warn contains msg if {
  some change in input.resource_changes
  "create" in change.change.actions
  msg := sprintf("%s is created", [change.address])
}
