package migration

import (
	"context"
	"io"
)

// PredictAt is predict with a ReaderAt and spillLine set to spill (for the tests of the
// long-line path, which real files take only past 1 MiB).
func PredictAt(ctx context.Context, r io.Reader, ra io.ReaderAt, spill int64) (Prediction, error) {
	old := spillLine
	spillLine = spill
	defer func() { spillLine = old }()
	return predict(ctx, r, ra)
}
