package kubelet

import (
	"fmt"
	"os"
	"path"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// ServiceAccountMountPath is where a Pod finds its token, ca.crt and namespace.
const ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// File is one file of a volume, as the kubelet writes it: owned by root and by gid.
type File struct {
	Path string // relative to the volume's root
	Data []byte
	Mode os.FileMode
	GID  uint32
}

// TokenFunc issues a ServiceAccount token for the Pod (a TokenRequest).
type TokenFunc func(audience string, expirationSeconds int64) (string, error)

// WithServiceAccountVolume returns the Pod's spec with the projected token volume the
// ServiceAccount admission plugin adds (token, ca.crt from kube-root-ca.crt, namespace),
// mounted in every container, unless the Pod or its ServiceAccount (saAutomount) turns the
// token off.
func WithServiceAccountVolume(spec corev1.PodSpec, saAutomount *bool) corev1.PodSpec {
	automount := spec.AutomountServiceAccountToken
	if automount == nil {
		automount = saAutomount
	}
	if automount != nil && !*automount {
		return spec
	}
	spec = *spec.DeepCopy()
	const name = "kube-api-access"
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](0o644),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
				{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}},
			}}},
		},
	}}})
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = append(spec.Containers[i].VolumeMounts,
			corev1.VolumeMount{Name: name, MountPath: ServiceAccountMountPath, ReadOnly: true})
	}
	return spec
}

// VolumeFiles are the files of a Secret, ConfigMap or projected volume. Files are owned by
// root; with the Pod's fsGroup they belong to that group and are group-readable, as the
// kubelet's volume ownership step leaves them.
func VolumeFiles(pod *corev1.Pod, vol corev1.Volume, objs Objects, token TokenFunc) ([]File, error) {
	var files []File
	var err error
	switch {
	case vol.Secret != nil:
		files, err = keyFiles("secret", vol.Secret.SecretName, objs.Secrets[vol.Secret.SecretName], vol.Secret.Items,
			modeOr(vol.Secret.DefaultMode, 0o644), vol.Secret.Optional)
	case vol.ConfigMap != nil:
		files, err = keyFiles("configmap", vol.ConfigMap.Name, stringsOf(objs.ConfigMaps, vol.ConfigMap.Name), vol.ConfigMap.Items,
			modeOr(vol.ConfigMap.DefaultMode, 0o644), vol.ConfigMap.Optional)
	case vol.Projected != nil:
		files, err = projectedFiles(pod, vol.Projected, objs, token)
	default:
		return nil, fmt.Errorf("volume %s: only secret, configMap and projected volumes are supported", vol.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("volume %s: %w", vol.Name, err)
	}
	if sc := pod.Spec.SecurityContext; sc != nil && sc.FSGroup != nil {
		for i := range files {
			files[i].GID = uint32(*sc.FSGroup)
			files[i].Mode |= 0o440
		}
	}
	return files, nil
}

func projectedFiles(pod *corev1.Pod, p *corev1.ProjectedVolumeSource, objs Objects, token TokenFunc) ([]File, error) {
	mode := modeOr(p.DefaultMode, 0o644)
	var files []File
	for _, src := range p.Sources {
		var part []File
		var err error
		switch {
		case src.Secret != nil:
			part, err = keyFiles("secret", src.Secret.Name, objs.Secrets[src.Secret.Name], src.Secret.Items, mode, src.Secret.Optional)
		case src.ConfigMap != nil:
			part, err = keyFiles("configmap", src.ConfigMap.Name, stringsOf(objs.ConfigMaps, src.ConfigMap.Name), src.ConfigMap.Items, mode, src.ConfigMap.Optional)
		case src.DownwardAPI != nil:
			for _, item := range src.DownwardAPI.Items {
				if item.FieldRef == nil {
					return nil, fmt.Errorf("downwardAPI %s: only fieldRef is supported", item.Path)
				}
				v, ferr := fieldValue(pod, item.FieldRef.FieldPath)
				if ferr != nil {
					return nil, ferr
				}
				part = append(part, File{Path: item.Path, Data: []byte(v), Mode: modeOr(item.Mode, mode)})
			}
		case src.ServiceAccountToken != nil:
			sat := src.ServiceAccountToken
			tok, terr := token(sat.Audience, ptr.Deref(sat.ExpirationSeconds, 3600))
			if terr != nil {
				return nil, fmt.Errorf("token: %w", terr)
			}
			part = []File{{Path: sat.Path, Data: []byte(tok), Mode: mode}}
		default:
			return nil, fmt.Errorf("unsupported projection")
		}
		if err != nil {
			return nil, err
		}
		files = append(files, part...)
	}
	return files, nil
}

// keyFiles are the files of a Secret's or ConfigMap's keys: all of them, or the items named.
func keyFiles(kind, name string, data map[string][]byte, items []corev1.KeyToPath, mode os.FileMode, optional *bool) ([]File, error) {
	if data == nil {
		if optional != nil && *optional {
			return nil, nil
		}
		return nil, fmt.Errorf("%s %q not found", kind, name)
	}
	var files []File
	if len(items) == 0 {
		for k, v := range data {
			files = append(files, File{Path: k, Data: v, Mode: mode})
		}
		return files, nil
	}
	for _, item := range items {
		v, ok := data[item.Key]
		if !ok {
			return nil, fmt.Errorf("%s %q has no key %q", kind, name, item.Key)
		}
		files = append(files, File{Path: path.Clean(item.Path), Data: v, Mode: modeOr(item.Mode, mode)})
	}
	return files, nil
}

func modeOr(m *int32, def os.FileMode) os.FileMode {
	if m == nil {
		return def
	}
	return os.FileMode(*m)
}

func stringsOf(cms map[string]map[string]string, name string) map[string][]byte {
	cm, ok := cms[name]
	if !ok {
		return nil
	}
	out := make(map[string][]byte, len(cm))
	for k, v := range cm {
		out[k] = []byte(v)
	}
	return out
}
