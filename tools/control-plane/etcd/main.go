// etcd, built from the etcd server module at the version Kubernetes itself requires:
// the same entry point as etcd's own binary.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
