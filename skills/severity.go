package skills

import "github.com/proofloop/proofloop/model"

// severityParam is --severity of check-reject-proof and reopen: optional,
// defaulting from the error type by model.ErrorSeverity.
var severityParam = Param{Name: "severity", Type: TypeEnum, Enum: model.Severities,
	Help: "critical (the step is wrong) or gap (it is unsupported); by default from the error type (see proofloop transitions)"}

// severity is the severity given, or the error type's default. The issue
// records it either way, so that a later change of the table does not
// change what a checker said.
func severity(in *Input) string {
	if v := in.OptText("severity"); v != nil {
		return *v
	}
	return model.DefaultSeverity(in.Text("error_type"))
}
