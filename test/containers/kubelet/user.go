package kubelet

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Identity is the uid and gid the container's process runs as.
type Identity struct{ UID, GID uint32 }

// User decides the process's identity: runAsUser/runAsGroup of the container, else of the
// Pod, else the image's USER. With runAsNonRoot it refuses, as a kubelet does, uid 0 and an
// image user given by name (it cannot be verified without the image's /etc/passwd).
func User(pod *corev1.Pod, c corev1.Container, img Image) (Identity, error) {
	podSC := pod.Spec.SecurityContext
	if podSC == nil {
		podSC = &corev1.PodSecurityContext{}
	}
	sc := c.SecurityContext
	if sc == nil {
		sc = &corev1.SecurityContext{}
	}
	runAsUser, runAsGroup, runAsNonRoot := sc.RunAsUser, sc.RunAsGroup, sc.RunAsNonRoot
	if runAsUser == nil {
		runAsUser = podSC.RunAsUser
	}
	if runAsGroup == nil {
		runAsGroup = podSC.RunAsGroup
	}
	if runAsNonRoot == nil {
		runAsNonRoot = podSC.RunAsNonRoot
	}
	var id Identity
	if img.User != "" {
		u, g, hasGroup := strings.Cut(img.User, ":")
		uid, err := strconv.ParseUint(u, 10, 32)
		switch {
		case err == nil:
			id.UID = uint32(uid)
		case runAsUser == nil && runAsNonRoot != nil && *runAsNonRoot:
			return Identity{}, fmt.Errorf("container has runAsNonRoot and image has non-numeric user (%s), cannot verify user is non-root", u)
		case runAsUser == nil:
			return Identity{}, fmt.Errorf("image user %q is a name: this node reads no /etc/passwd", u)
		}
		if hasGroup {
			gid, err := strconv.ParseUint(g, 10, 32)
			if err != nil {
				return Identity{}, fmt.Errorf("image group %q is a name: this node reads no /etc/group", g)
			}
			id.GID = uint32(gid)
		}
	}
	if runAsUser != nil {
		id.UID = uint32(*runAsUser)
	}
	if runAsGroup != nil {
		id.GID = uint32(*runAsGroup)
	}
	if runAsNonRoot != nil && *runAsNonRoot && id.UID == 0 {
		return Identity{}, fmt.Errorf("container has runAsNonRoot and image will run as root")
	}
	return id, nil
}
