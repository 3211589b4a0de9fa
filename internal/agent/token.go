package agent

import (
	"fmt"
	"os"
	"strings"
)

// TokenEnv names the environment variable a token may come from instead
// of a file (never from the command line, where ps would show it).
const TokenEnv = "CLUSTERLENS_TOKEN"

// LoadToken reads the bearer token agents and the collector share from
// file, or from $CLUSTERLENS_TOKEN (TokenEnv) when file is empty.
func LoadToken(file string) (string, error) {
	if file == "" {
		tok := strings.TrimSpace(os.Getenv(TokenEnv))
		if tok == "" {
			return "", fmt.Errorf("a token is required: --token-file FILE or $%s", TokenEnv)
		}
		return tok, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, "\r\n") {
		return "", fmt.Errorf("--token-file %s: want one line holding the token", file)
	}
	return tok, nil
}
