//go:build tools

// Pulumi YAML's language host, which this module builds. Importing it here keeps it in
// the module graph that `go mod tidy` resolves.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
