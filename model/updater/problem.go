package updater

import (
	"errors"
	"fmt"
)

// Severity ranks a Problem.
type Severity string

const (
	// SeverityError: Image Updater will not update (this app, image or CR).
	SeverityError Severity = "error"
	// SeverityWarning: likely not what was meant; updates may go wrong.
	SeverityWarning Severity = "warning"
	// SeverityInfo: context for the diagnosis.
	SeverityInfo Severity = "info"
)

// Problem is one finding of the selection stage. Code is stable and
// machine-readable; Message is for the on-call engineer.
type Problem struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Key and Value name the annotation (or CR field) at fault, when there
	// is one; Suggest is the key (or value) to write instead. They let a
	// caller build the exact fix.
	Key     string `json:"key,omitempty"`
	Value   string `json:"value,omitempty"`
	Suggest string `json:"suggest,omitempty"`
}

// withError fills Key and Value from an *AnnotationError in err.
func (p Problem) withError(err error) Problem {
	var ae *AnnotationError
	if errors.As(err, &ae) {
		p.Key, p.Value = ae.Key, ae.Value
	}
	return p
}

func problemf(code string, sev Severity, format string, args ...any) Problem {
	return Problem{Code: code, Severity: sev, Message: fmt.Sprintf(format, args...)}
}

// Problem codes of the configuration and selection stage.
const (
	ProblemCRNoApplicationRefs         = "CR_NO_APPLICATION_REFS"
	ProblemCRInvalidNamePattern        = "CR_INVALID_NAME_PATTERN"
	ProblemCRNamespaceNotWatched       = "CR_NAMESPACE_NOT_WATCHED"
	ProblemCRSpecNamespaceIgnored      = "CR_SPEC_NAMESPACE_IGNORED"
	ProblemCRSpecNamespaceMissing      = "CR_SPEC_NAMESPACE_MISSING"
	ProblemAppNotInCRNamespace         = "APP_NOT_IN_CR_NAMESPACE"
	ProblemNoCR                        = "NO_IMAGEUPDATER_CR"
	ProblemNoMatchingRef               = "NO_MATCHING_REF"
	ProblemInvalidLabelSelector        = "INVALID_LABEL_SELECTOR"
	ProblemRefConfigErrorFellThrough   = "REF_CONFIG_ERROR_FELL_THROUGH"
	ProblemRefConfigErrorNoFallback    = "REF_CONFIG_ERROR_NO_FALLBACK"
	ProblemMultipleCRsMatch            = "MULTIPLE_CRS_MATCH"
	ProblemAnnotationsIgnoredWithoutCR = "ANNOTATIONS_IGNORED_WITHOUT_CR"
	ProblemUseAnnotationsNotSupported  = "USE_ANNOTATIONS_NOT_SUPPORTED"
	ProblemImageListMissing            = "IMAGE_LIST_MISSING"
	ProblemImageListEmpty              = "IMAGE_LIST_EMPTY"
	ProblemForceUpdateUnparsable       = "FORCE_UPDATE_UNPARSABLE"
	ProblemHelmAndKustomize            = "HELM_AND_KUSTOMIZE_ON_ALIAS"
	ProblemAnnotationForUnknownAlias   = "ANNOTATION_FOR_UNKNOWN_ALIAS"
	ProblemUnknownAnnotationKey        = "UNKNOWN_ANNOTATION_KEY"
	ProblemTagMatchIgnoredInV1         = "TAG_MATCH_IGNORED_IN_V1"
	ProblemUnsupportedSourceType       = "UNSUPPORTED_SOURCE_TYPE"
	ProblemPluginNotSupportedBeforeV13 = "PLUGIN_NOT_SUPPORTED_BEFORE_V13"
	ProblemPluginGitTreatedAsHelm      = "PLUGIN_GIT_WRITEBACK_TREATED_AS_HELM"
	ProblemImageWithoutAlias           = "IMAGE_WITHOUT_ALIAS_GETS_APP_SETTINGS_ONLY"
	ProblemImageDropped                = "IMAGE_DROPPED"
	ProblemNoImages                    = "NO_IMAGES_CONFIGURED"
	ProblemWriteBackConfig             = "WRITEBACK_CONFIG_ERROR"
	ProblemWriteBackWillFail           = "WRITEBACK_WILL_FAIL"
	ProblemWriteBackNote               = "WRITEBACK_NOTE"
	ProblemWriteBackInsecureURL        = "WRITEBACK_INSECURE_URL"
	ProblemWriteBackSecretNamespace    = "WRITEBACK_SECRET_OTHER_NAMESPACE"
	ProblemWriteBackSecretRef          = "WRITEBACK_SECRET_REF_INVALID"
	ProblemWriteBackTargetRejected     = "WRITEBACK_TARGET_REJECTED"
	ProblemCRDDefaultedOverride        = "CRD_DEFAULTED_OVERRIDE"
	ProblemSettingsWarning             = "SETTINGS_WARNING"
)
