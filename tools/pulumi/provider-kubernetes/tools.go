//go:build tools

// The Kubernetes provider this module builds. Importing it here keeps it in the module
// graph that `go mod tidy` resolves; the build itself runs from a copy of the command's
// files, whose schema it generates first.
package tools

import _ "github.com/pulumi/pulumi-kubernetes/provider/v4/cmd/pulumi-resource-kubernetes"
