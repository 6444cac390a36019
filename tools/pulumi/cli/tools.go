//go:build tools

// The Pulumi CLI this module builds. Importing it here keeps it in the module graph
// that `go mod tidy` resolves.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
