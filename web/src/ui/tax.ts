// Words for tax records shared by the console's review page and the portal's tax details.

/** The kinds of tax form, as people read them. */
export const formKinds: { value: 'w9' | 'w8ben' | 'w8bene' | 'eu_vat'; label: string }[] = [
  { value: 'w9', label: 'W-9 (US person)' },
  { value: 'w8ben', label: 'W-8BEN (foreign individual)' },
  { value: 'w8bene', label: 'W-8BEN-E (foreign entity)' },
  { value: 'eu_vat', label: 'EU VAT id' },
];

/** A form kind's label. */
export const formKindLabel = (k: string) => formKinds.find((f) => f.value === k)?.label ?? k;
