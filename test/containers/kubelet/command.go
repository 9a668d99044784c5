// Package kubelet holds the decisions a kubelet makes when it turns a Pod's container and its
// image into a process for the runtime: the command line, the environment, the user, the
// files of its volumes and the OCI runtime spec. Each is a pure function of its inputs.
package kubelet

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Image is what the kubelet reads from an image's config.
type Image struct {
	Entrypoint, Cmd []string
	Env             []string // KEY=value
	User            string   // "uid", "uid:gid" or a name
	WorkingDir      string
}

// Command is the process's argv: the container's command, else the image's entrypoint; then
// the container's args, else (only when command is unset too) the image's cmd. $(VAR)
// references in command and args are expanded from env.
func Command(img Image, c corev1.Container, env map[string]string) []string {
	expand := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = Expand(x, env)
		}
		return out
	}
	switch {
	case len(c.Command) > 0:
		return append(expand(c.Command), expand(c.Args)...)
	case len(c.Args) > 0:
		return append(append([]string{}, img.Entrypoint...), expand(c.Args)...)
	default:
		return append(append([]string{}, img.Entrypoint...), img.Cmd...)
	}
}

// Expand replaces $(VAR) with env's VAR, as Kubernetes does for command, args and env values:
// $$ is a literal $, and a reference to an undefined variable is left as written.
func Expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
