package kubefake

import kubescheme "k8s.io/client-go/kubernetes/scheme"

// scheme and codecs are the names clientset_generated.go uses; kubernetes/fake
// defines them as a second scheme with the same types, registered in its init.
var (
	scheme = kubescheme.Scheme
	codecs = kubescheme.Codecs
)
