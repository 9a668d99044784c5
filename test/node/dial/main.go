// Command dial is the client test/node runs in a Pod to see what a NetworkPolicy does to it: it
// opens a TCP connection to its argument and exits 0 when it is accepted, 3 when it is refused
// (a policy's REJECT answers at once, so no timeout decides it), 1 on any other error.
//
// With -until-connected it tries again after each refusal and exits 0 once accepted: a policy
// admits a Pod only once its enforcer has seen the Pod running, and a Pod that exits at once
// may be gone before then.
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

func main() {
	untilConnected := flag.Bool("until-connected", false, "try again after each refusal")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: dial [-until-connected] HOST:PORT")
		os.Exit(2)
	}
	for refusals := 0; ; refusals++ {
		conn, err := net.Dial("tcp", flag.Arg(0))
		switch {
		case err == nil:
			conn.Close()
			fmt.Printf("connected after %d refusals\n", refusals)
			return
		case errors.Is(err, syscall.ECONNREFUSED) && *untilConnected:
			time.Sleep(200 * time.Millisecond)
		case errors.Is(err, syscall.ECONNREFUSED):
			fmt.Println("refused")
			os.Exit(3)
		default:
			fmt.Println(err)
			os.Exit(1)
		}
	}
}
