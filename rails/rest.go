package rails

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxAnswer bounds what is read of a provider's answer.
const maxAnswer = 1 << 20

// restCall sends one JSON request and decodes a 2xx answer into out. A refusal is read for the
// provider's error name and message (PayPal's name/message, Wise's errors[].code/message).
func restCall(ctx context.Context, hc *http.Client, provider, method, url string, header http.Header, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return &Rejection{Provider: provider, Code: "invalid_request", Reason: "the provider's address is not valid"}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = defaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s unreachable: %w", provider, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s answer: %w", provider, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var problem struct {
			Name    string `json:"name"`
			Message string `json:"message"`
			Error   string `json:"error"`
			Desc    string `json:"error_description"`
			Errors  []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"errors"`
		}
		_ = json.Unmarshal(raw, &problem)
		name, msg := problem.Name, problem.Message
		if name == "" {
			name = problem.Error
		}
		if msg == "" {
			msg = problem.Desc
		}
		if len(problem.Errors) > 0 {
			name, msg = problem.Errors[0].Code, problem.Errors[0].Message
		}
		return statusError(provider, resp.StatusCode, name, clip(msg, 500))
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s answer is not the expected JSON: %w", provider, err)
	}
	return nil
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n]
	}
	return s
}
