package openclaw

// Feature is one behaviour that differs between OpenClaw releases.
type Feature int

// The features, each with the first verified release that has it (see features). Engines add
// theirs here, next to the conformance inputs that show the difference.
const (
	// RepairDropsRolelessMessages: repairSessionFileIfNeeded drops type:"message" entries whose
	// message is not an object or whose role is not a non-blank string. 2026.4.24 keeps them.
	RepairDropsRolelessMessages Feature = iota
	// RepairRewritesBlankTurns: assistant content [] with stopReason "error" gets the
	// stream-error text; blank user text becomes "(continue)".
	RepairRewritesBlankTurns
	// RepairInsertsCodeModeResults: OpenAI code-mode (openai-chatgpt-responses) tool calls
	// that no result answers get synthetic "aborted" results.
	RepairInsertsCodeModeResults
	// RepairReplacesCorruptImages: image blocks whose base64 is not ASCII, does not decode or
	// is not an image are replaced by a text block.
	RepairReplacesCorruptImages
	// RepairInsertsDeliveryMirrorResults: OpenAI Responses `message` tool calls followed by a
	// transcript-only delivery-mirror turn get synthetic "aborted" results.
	RepairInsertsDeliveryMirrorResults
	// LoaderKeepsHeaderlessEntries: SessionManager.open of a file without a session header
	// writes a new header before its entries; earlier releases rewrite it with a bare header,
	// losing every entry.
	LoaderKeepsHeaderlessEntries
)

type featureInfo struct {
	name  string
	since Release
}

var features = map[Feature]featureInfo{
	RepairDropsRolelessMessages:        {"repair drops role-less message entries", MustParse("2026.6.11")},
	RepairRewritesBlankTurns:           {"repair rewrites empty error and blank user turns", MustParse("2026.6.11")},
	RepairInsertsCodeModeResults:       {"repair inserts missing code-mode tool results", MustParse("2026.6.11")},
	RepairReplacesCorruptImages:        {"repair replaces corrupt base64 image blocks", MustParse("2026.6.11")},
	RepairInsertsDeliveryMirrorResults: {"repair inserts results of message tool calls mirrored by delivery-mirror", MustParse("2026.6.11")},
	LoaderKeepsHeaderlessEntries:       {"the loader keeps the entries of a file without a header", MustParse("2026.6.11")},
}

func (f Feature) String() string { return features[f].name }

// Since is the first verified release that has f.
func (f Feature) Since() Release { return features[f].since }

// Has reports whether r has f, judged by the release r behaves as (see Behaves): only verified
// releases are known exactly, so a release between two verified ones is taken to behave as the
// older one.
func (r Release) Has(f Feature) bool {
	v, _ := r.Behaves()
	return v.Compare(features[f].since) >= 0
}
