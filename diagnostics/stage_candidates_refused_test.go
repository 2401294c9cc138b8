package diagnostics

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestECRPullStatement: on ECR the permission is the IAM statement that
// adds the pull actions on the repository's ARN, read from the host.
func TestECRPullStatement(t *testing.T) {
	for _, c := range []struct{ host, arn string }{
		{"123456789012.dkr.ecr.eu-west-1.amazonaws.com", "arn:aws:ecr:eu-west-1:123456789012:repository/team/web"},
		{"123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn", "arn:aws-cn:ecr:cn-north-1:123456789012:repository/team/web"},
	} {
		got := ecrPullStatement(c.host, "team/web")
		var stmt struct {
			Effect   string
			Action   []string
			Resource string
		}
		if err := json.Unmarshal([]byte(got), &stmt); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", c.host, err, got)
		}
		if stmt.Effect != "Allow" || stmt.Resource != c.arn || !strings.Contains(strings.Join(stmt.Action, ","), "ecr:BatchGetImage,ecr:GetDownloadUrlForLayer") {
			t.Errorf("%s: %s", c.host, got)
		}
	}
}
