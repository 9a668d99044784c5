// Command dial is the client test/node runs in a Pod to see what a NetworkPolicy does to it: it
// opens a TCP connection to its argument and exits 0 when it is accepted, 3 when it is refused
// (a policy's REJECT answers at once, so no timeout decides it), 1 on any other error.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dial HOST:PORT")
		os.Exit(2)
	}
	conn, err := net.Dial("tcp", os.Args[1])
	switch {
	case err == nil:
		conn.Close()
		fmt.Println("connected")
	case errors.Is(err, syscall.ECONNREFUSED):
		fmt.Println("refused")
		os.Exit(3)
	default:
		fmt.Println(err)
		os.Exit(1)
	}
}
