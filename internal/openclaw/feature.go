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
	// UnpaddedBase64: canonicalizeBase64 pads a payload 2 or 3 characters past a multiple of 4
	// that has no "=", and refuses one whose padding leaves set bits in its last character: an
	// image with unpadded base64 is no longer corrupt (repair keeps it, replay sends it padded).
	UnpaddedBase64
	// LoaderNormalizesContent: the session loader turns the string content of an assistant or
	// toolResult message into one text block, and the object content of a toolResult into a list
	// of it (normalizeLoadedFileEntry); before, OpenClaw sent such a tool result as
	// "[empty content omitted]".
	LoaderNormalizesContent
	// CleanupPrunesModelRuns: `sessions cleanup` (enforce mode) first removes gateway model-run
	// probe rows (agent:<a>:explicit:model-run-<uuid>) idle over 24 h when the store holds more
	// rows than maxEntries, and counts them as modelRunPruned (pruneStaleModelRunEntries); 2026.6.11
	// leaves them to the age prune, counted as pruned.
	CleanupPrunesModelRuns
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
	UnpaddedBase64:                     {"unpadded base64 images are accepted and padded", MustParse("2026.7.35")},
	LoaderNormalizesContent:            {"the loader turns string and object message content into blocks", MustParse("2026.7.35")},
	CleanupPrunesModelRuns:             {"cleanup prunes stale gateway model-run probes first", MustParse("2026.7.35")},
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
