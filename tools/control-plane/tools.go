//go:build tools

// The Kubernetes commands this module builds. Importing them here keeps them in the
// module graph that `go mod tidy` resolves.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
