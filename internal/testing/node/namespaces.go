package node

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// role tells this binary, started again by RunInOwnNamespaces, what it is there.
const role = "SWAPROUTER_TEST_NODE_ROLE"

// kernelDefaults are the kernel settings a kubelet insists on. They are machine-wide, so
// the node's kubelet runs with protectKernelDefaults and reads these values from files mounted
// over /proc/sys in its own mount namespace, instead of setting them for every suite.
var kernelDefaults = map[string]string{
	"vm/overcommit_memory":      "1",
	"vm/panic_on_oom":           "0",
	"kernel/panic":              "10",
	"kernel/panic_on_oops":      "1",
	"kernel/keys/root_maxkeys":  "1000000",
	"kernel/keys/root_maxbytes": "25000000",
}

// RunInOwnNamespaces runs this test binary again in network, mount and PID namespaces of its
// own, and returns its exit code; in that copy it returns inside=true. Every port, address,
// route, iptables rule and mount the node makes is then the test's alone, and when the test
// ends the kernel ends every process the node started (containerd's shims included).
//
// The first process of the namespaces is this binary as their init: it sets up the mounts and
// the loopback, runs the test as its child and reaps the orphans a container runtime leaves.
func RunInOwnNamespaces() (code int, inside bool, err error) {
	if insideNamespaces() {
		return 0, true, nil
	}
	if os.Getenv(role) == "init" {
		os.Exit(initNamespaces())
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Env = append(os.Environ(), role+"=init")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		Pdeathsig:  syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return 1, false, err
	}
	// An interrupted run (Ctrl-C, go test's kill) ends through the init, which cleans up.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for range interrupts {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), false, nil
	}
	if err != nil {
		return 1, false, err
	}
	return 0, false, nil
}

// insideNamespaces says whether this process is the test RunInOwnNamespaces started.
func insideNamespaces() bool { return os.Getenv(role) == "test" }

// initNamespaces is PID 1 of the node's namespaces: it returns the test's exit code.
func initNamespaces() int {
	if err := setUpMounts(); err != nil {
		fmt.Fprintln(os.Stderr, "node: setting up the namespaces:", err)
		return 1
	}
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "node: ip link set lo up: %v: %s\n", err, out)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, role+"=") {
			env = append(env, kv)
		}
	}
	test, err := syscall.ForkExec(self, os.Args, &syscall.ProcAttr{
		Env:   append(env, role+"=test"),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "node: starting the test:", err)
		return 1
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for range interrupts {
			_ = syscall.Kill(test, syscall.SIGTERM)
		}
	}()
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "node: waiting for the test:", err)
			return 1
		}
		if pid != test {
			continue // an orphan, reaped
		}
		cleanUpAfter()
		if status.Signaled() {
			return 128 + int(status.Signal())
		}
		return status.ExitStatus()
	}
}

// cleanUpAfter ends what the test left running in the namespaces and removes the node's
// cgroups, which outlive the namespaces: a test that timed out never ran its Stop.
func cleanUpAfter() {
	_ = syscall.Kill(-1, syscall.SIGKILL) // from PID 1: every other process of the namespace
	for {
		if _, err := syscall.Wait4(-1, nil, 0, nil); errors.Is(err, syscall.ECHILD) {
			break
		}
	}
	if root, err := cgroupRootName(); err == nil {
		removeCgroupTree(root)
	}
}

// setUpMounts gives the namespaces their own /proc (of the new PID namespace), an empty /run,
// /var/log and /var/lib/kubelet (containerd's shim sockets, the kubelet's pod logs, device
// plugin socket and serving certificate have fixed paths there) and the kernel settings the
// kubelet reads.
func setUpMounts() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	for _, dir := range []string{"/run", "/var/log", "/var/lib/kubelet"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=755"); err != nil {
			return fmt.Errorf("mount %s: %w", dir, err)
		}
	}
	settings := "/run/swaprouter-test-node/sysctl"
	if err := os.MkdirAll(settings, 0o755); err != nil {
		return err
	}
	for key, value := range kernelDefaults {
		file := filepath.Join(settings, filepath.Base(filepath.Dir(key))+"."+filepath.Base(key))
		if err := os.WriteFile(file, []byte(value+"\n"), 0o444); err != nil {
			return err
		}
		if err := syscall.Mount(file, filepath.Join("/proc/sys", key), "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mount %s over /proc/sys/%s: %w", file, key, err)
		}
	}
	return nil
}
