package store

import (
	"errors"
	"testing"
)

// TestDamagedKeepsALostConnection: a backend read that failed because the
// connection was lost (TestServerKilledPostgres met it reading config.json
// during the outage) stays exit 5, retry later, not exit 6 store_damaged.
func TestDamagedKeepsALostConnection(t *testing.T) {
	for _, code := range []Code{CodeConflict, CodeLockTimeout} {
		err := damaged(ConfigFile, Errorf(code, "read %s: the connection to PostgreSQL failed", ConfigFile))
		if err.Code != code {
			t.Errorf("damaged(config.json, a %s error).Code = %s; want %s", code, err.Code, code)
		}
	}
	if err := damaged(ConfigFile, errors.New("unexpected end of JSON input")); err.Code != CodeStoreDamaged {
		t.Errorf("damaged(config.json, a parse error).Code = %s; want %s", err.Code, CodeStoreDamaged)
	}
}
