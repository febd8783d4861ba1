package models

import "testing"

func TestTaxDetailsAreCheckedPerFormAndCountry(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    TaxDetails
		want  string // the normalised tax id, or "" when refused
		field string // the first refused field
	}{
		{"a W-9 with an EIN", TaxDetails{"Alpha Inc.", "us", TaxFormW9, "12-3456789"}, "123456789", ""},
		{"a W-9 with an SSN", TaxDetails{"Jane Doe", "US", TaxFormW9, "123-45-6789"}, "123456789", ""},
		{"a W-9 with eight digits", TaxDetails{"Alpha Inc.", "US", TaxFormW9, "12345678"}, "", "body.taxId"},
		{"a W-9 outside the US", TaxDetails{"Alpha GmbH", "DE", TaxFormW9, "123456789"}, "", "body.country"},
		{"a W-8BEN abroad", TaxDetails{"Jean Dupont", "FR", TaxFormW8BEN, "1 23 45 678 901 23"}, "1 23 45 678 901 23", ""},
		{"a W-8BEN-E in the US", TaxDetails{"Alpha Inc.", "US", TaxFormW8BENE, "X1"}, "", "body.country"},
		{"a W-8BEN without a number", TaxDetails{"Jean Dupont", "FR", TaxFormW8BEN, ""}, "", "body.taxId"},
		{"a German VAT id", TaxDetails{"Alpha GmbH", "DE", TaxFormEUVAT, "de 123 456 789"}, "DE123456789", ""},
		{"a Dutch VAT id", TaxDetails{"Alpha BV", "NL", TaxFormEUVAT, "NL123456789B01"}, "NL123456789B01", ""},
		{"a Greek VAT id keeps its EL prefix", TaxDetails{"Alpha AE", "GR", TaxFormEUVAT, "EL123456789"}, "EL123456789", ""},
		{"a Greek VAT id with GR", TaxDetails{"Alpha AE", "GR", TaxFormEUVAT, "GR123456789"}, "", "body.taxId"},
		{"an Austrian VAT id without its U", TaxDetails{"Alpha GmbH", "AT", TaxFormEUVAT, "AT12345678"}, "", "body.taxId"},
		{"a German VAT id under France", TaxDetails{"Alpha SARL", "FR", TaxFormEUVAT, "DE123456789"}, "", "body.taxId"},
		{"a VAT id outside the EU", TaxDetails{"Alpha Ltd", "CH", TaxFormEUVAT, "CHE123456789"}, "", "body.country"},
		{"no legal name", TaxDetails{" ", "DE", TaxFormEUVAT, "DE123456789"}, "", "body.legalName"},
		{"an unknown form", TaxDetails{"Alpha", "DE", "1099", "X"}, "", "body.formKind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := CheckTaxDetails(c.in)
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("refused: %v %+v", err, err.Fields)
			case c.field == "" && got.TaxID != c.want:
				t.Fatalf("tax id %q, want %q", got.TaxID, c.want)
			case c.field != "" && (err == nil || err.Code != "INVALID_TAX_DETAILS" || err.Fields[0].Location != c.field):
				t.Fatalf("got %v, want a problem at %s", err, c.field)
			}
			if err != nil {
				for _, f := range err.Fields {
					if f.Location == "body.taxId" && f.Value != nil {
						t.Fatalf("a problem carries the tax id: %+v", f)
					}
				}
			}
		})
	}
}
