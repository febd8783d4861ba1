import { currencyDigits, decimalToMinor } from './format';

/** What a person types into a deal form, whichever way it registers or edits a deal. */
export interface DealFormValues {
  customerCompany: string;
  contactName: string;
  contactEmail: string;
  amount: string;
  currency: string;
  expectedCloseDate: string;
  notes: string;
}

type DealFields = Pick<DealFormValues, 'customerCompany' | 'contactEmail' | 'amount' | 'currency'>;

/** The form field a server error names: the server says amountMinor where the person typed amount. */
export const dealFormField = (f: string) => (f === 'amountMinor' ? 'amount' : f);

/** The checks of a deal form's customer, contact email and amount (a decimal in the chosen currency). */
export const dealValidators = {
  customerCompany: (v: string) => (v.trim() ? null : 'Name the customer company'),
  contactEmail: (v: string) => (!v.trim() || /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v.trim()) ? null : 'Enter an email address like name@company.com'),
  amount: (v: string, values: DealFields) => {
    if (!v.trim()) return 'Enter the expected deal value';
    const minor = decimalToMinor(v, values.currency);
    if (minor === null) {
      const d = currencyDigits(values.currency);
      return `Enter an amount like ${d ? `1250.${'0'.repeat(d)}` : '1250'} (at most ${String(d)} decimal${d === 1 ? '' : 's'} in ${values.currency})`;
    }
    return minor < 0 ? 'The amount cannot be negative' : null;
  },
};
