package kubelet

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Objects are the Secrets and ConfigMaps of the Pod's namespace, by name.
type Objects struct {
	Secrets    map[string]map[string][]byte
	ConfigMaps map[string]map[string]string
}

// Env is the container's environment as KEY=value, sorted: the image's, then the Service
// links (unless the Pod turns them off, always those of the kubernetes Service), then the
// container's env, each value with $(VAR) expanded from what is defined before it. pod
// carries what the kubelet knows of it: metadata, spec, and status.podIP/hostIP.
func Env(pod *corev1.Pod, c corev1.Container, img Image, services []corev1.Service, objs Objects) ([]string, error) {
	env := map[string]string{}
	for _, kv := range img.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	links := map[string]string{}
	for _, svc := range services {
		kubernetes := svc.Namespace == "default" && svc.Name == "kubernetes"
		linked := pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks
		if kubernetes || (linked && svc.Namespace == pod.Namespace) {
			for k, v := range ServiceLinks(svc) {
				links[k] = v
			}
		}
	}
	defined := map[string]string{}
	for k, v := range links {
		env[k], defined[k] = v, v
	}
	for _, e := range c.Env {
		v := Expand(e.Value, defined)
		if e.ValueFrom != nil {
			var err error
			if v, err = valueFrom(pod, c, e.ValueFrom, objs); err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
		}
		env[e.Name], defined[e.Name] = v, v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

func valueFrom(pod *corev1.Pod, c corev1.Container, src *corev1.EnvVarSource, objs Objects) (string, error) {
	switch {
	case src.FieldRef != nil:
		return fieldValue(pod, src.FieldRef.FieldPath)
	case src.ResourceFieldRef != nil:
		return resourceValue(pod, c, src.ResourceFieldRef)
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		if v, ok := objs.Secrets[ref.Name][ref.Key]; ok {
			return string(v), nil
		}
		if ref.Optional != nil && *ref.Optional {
			return "", nil
		}
		return "", fmt.Errorf("secret %q has no key %q", ref.Name, ref.Key)
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		if v, ok := objs.ConfigMaps[ref.Name][ref.Key]; ok {
			return v, nil
		}
		if ref.Optional != nil && *ref.Optional {
			return "", nil
		}
		return "", fmt.Errorf("configmap %q has no key %q", ref.Name, ref.Key)
	}
	return "", fmt.Errorf("unsupported valueFrom")
}

// fieldValue is a fieldRef's value: the paths the downward API offers for env.
func fieldValue(pod *corev1.Pod, path string) (string, error) {
	if key, ok := subscript(path, "metadata.labels"); ok {
		return pod.Labels[key], nil
	}
	if key, ok := subscript(path, "metadata.annotations"); ok {
		return pod.Annotations[key], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP":
		return pod.Status.HostIP, nil
	case "status.podIP":
		return pod.Status.PodIP, nil
	}
	return "", fmt.Errorf("unsupported fieldPath %q", path)
}

// subscript reads "prefix['key']".
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok || !strings.HasSuffix(rest, "']") {
		return "", false
	}
	return strings.TrimSuffix(rest, "']"), true
}

// resourceValue is a resourceFieldRef's value: the quantity divided by the divisor (default
// 1), rounded up. A limit the container does not set has no value here (a kubelet would
// give the node's allocatable, which this node does not model).
func resourceValue(pod *corev1.Pod, c corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	if ref.ContainerName != "" {
		found := false
		for _, other := range pod.Spec.Containers {
			if other.Name == ref.ContainerName {
				c, found = other, true
			}
		}
		if !found {
			return "", fmt.Errorf("no container %q", ref.ContainerName)
		}
	}
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok {
		return "", fmt.Errorf("unsupported resource %q", ref.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		return "", fmt.Errorf("container %s sets no %s", c.Name, ref.Resource)
	}
	divisor := resource.MustParse("1")
	if !ref.Divisor.IsZero() {
		divisor = ref.Divisor
	}
	if name == string(corev1.ResourceCPU) {
		return strconv.FormatInt(int64(math.Ceil(float64(q.MilliValue())/float64(divisor.MilliValue()))), 10), nil
	}
	return strconv.FormatInt(int64(math.Ceil(float64(q.Value())/float64(divisor.Value()))), 10), nil
}

// ServiceLinks are the variables a kubelet sets for a Service with a cluster IP, as Docker
// links named them: NAME_SERVICE_HOST, NAME_SERVICE_PORT[_PORTNAME], NAME_PORT and
// NAME_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR].
func ServiceLinks(svc corev1.Service) map[string]string {
	ip := svc.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone || len(svc.Spec.Ports) == 0 {
		return nil
	}
	name := strings.ToUpper(strings.ReplaceAll(svc.Name, "-", "_"))
	env := map[string]string{name + "_SERVICE_HOST": ip, name + "_SERVICE_PORT": strconv.Itoa(int(svc.Spec.Ports[0].Port))}
	for i, p := range svc.Spec.Ports {
		port := strconv.Itoa(int(p.Port))
		if p.Name != "" {
			env[name+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))] = port
		}
		proto := string(p.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		url := strings.ToLower(proto) + "://" + ip + ":" + port
		if i == 0 {
			env[name+"_PORT"] = url
		}
		prefix := name + "_PORT_" + port + "_" + proto
		env[prefix] = url
		env[prefix+"_PROTO"] = strings.ToLower(proto)
		env[prefix+"_PORT"] = port
		env[prefix+"_ADDR"] = ip
	}
	return env
}
