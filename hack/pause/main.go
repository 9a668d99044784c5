// Command pause is the pod sandbox's process for the test node (test/node): it holds the pod's
// namespaces open, reaps the children it inherits when the pod shares a process namespace, and
// exits on SIGINT or SIGTERM, like the upstream pause container. hack/build-node.sh packs it as
// an image with hack/image, so the node needs no image registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range signals {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
