package store

import "gorm.io/gorm"

// migrate0028ContentGrantLookup indexes content grants by what a partner's listing asks of them
// (its tenant's grants of one kind and value), so a listing reads its own grants instead of every
// tenant's grants of that level or partner.
func migrate0028ContentGrantLookup(tx *gorm.DB) error {
	return tx.Exec("CREATE INDEX content_grants_lookup ON content_grants (tenant_id, kind, value, item_id)").Error
}
