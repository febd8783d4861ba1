import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { Alert, Button, Card, Group, NativeSelect, SimpleGrid, Skeleton, Stack, Text, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useMe } from '../../auth/me';
import { useCan } from '../../auth/useCan';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { downloadFile, formatBytes, uploadFile } from '../../ui/files';
import { PageHeader } from '../../ui/PageHeader';
import { StatusBadge } from '../../ui/StatusBadge';
import { formKindLabel, formKinds } from '../../ui/tax';

type TaxRecord = Schemas['TaxRecord'];
type FormKind = TaxRecord['formKind'];

/** The partner's own tax record: the details to submit, the signed form to upload, finance's review. */
export default function TaxDetails() {
  const me = useMe();
  const partnerId = me.data?.partnerId ?? '';
  const canWrite = useCan('tax:write');
  const record = useQuery({
    queryKey: ['tax-records', partnerId],
    queryFn: async () => {
      const res = await api.GET('/api/tax-records/{partnerId}', { params: { path: { partnerId } } });
      if (res.response.status === 404) return null;
      return unwrap(res);
    },
    enabled: !!partnerId,
  });
  return (
    <Stack>
      <PageHeader title="Tax details" description="Your organisation's tax details and signed tax form. The program's finance team reviews them before paying out." />
      {record.isError && <ErrorAlert error={record.error} />}
      {record.isPending ? <Skeleton height={120} /> : <Current record={record.data ?? null} partnerId={partnerId} />}
      {canWrite && !record.isPending && <DetailsForm record={record.data ?? null} partnerId={partnerId} />}
      {canWrite && record.data && <FormUpload partnerId={partnerId} kind={record.data.formKind} />}
    </Stack>
  );
}

function Current({ record, partnerId }: { record: TaxRecord | null; partnerId: string }) {
  const [failed, setFailed] = useState<unknown>(null);
  if (!record) {
    return <Alert color="blue" title="No tax details yet">Submit your tax details and upload the signed form; withdrawals may need them.</Alert>;
  }
  const rows: [string, React.ReactNode][] = [
    ['Legal name', record.legalName], ['Country', record.country], ['Form', formKindLabel(record.formKind)],
    ['Tax id', record.taxIdMasked], ['Status', <StatusBadge key="s" status={record.status} />],
    ['Submitted', <DateTime key="d" value={record.submittedAt} />],
  ];
  return (
    <Card withBorder component="section" aria-labelledby="current-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="current-title">Your tax record</Title>
        {record.status === 'rejected' && <Alert color="red" title="Finance rejected these details">{record.reason}</Alert>}
        <SimpleGrid cols={{ base: 1, xs: 3 }}>
          {rows.map(([label, value]) => (
            <Stack gap={0} key={label}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{label}</Text>
              <Text component="div">{value}</Text>
            </Stack>
          ))}
        </SimpleGrid>
        {record.form ? (
          <Group gap="xs">
            <Text size="sm">Signed form: {record.form.fileName} ({formatBytes(record.form.size)})</Text>
            <Button size="xs" variant="default" onClick={() => {
              setFailed(null);
              downloadFile(`/api/tax-records/${partnerId}/form`, record.form?.fileName ?? 'form').catch(setFailed);
            }}>Download</Button>
          </Group>
        ) : record.formKind !== 'eu_vat' && <Text size="sm" c="dimmed">No signed form uploaded yet: finance approves the record once it has one.</Text>}
        {failed !== null && <ErrorAlert error={failed} />}
      </Stack>
    </Card>
  );
}

interface Values { legalName: string; country: string; formKind: FormKind; taxId: string }

function DetailsForm({ record, partnerId }: { record: TaxRecord | null; partnerId: string }) {
  const queryClient = useQueryClient();
  const form = useForm<Values>({
    initialValues: { legalName: record?.legalName ?? '', country: record?.country ?? '', formKind: record?.formKind ?? 'w9', taxId: '' },
    validate: {
      legalName: (v) => (v.trim() ? null : 'Enter the legal name'),
      country: (v) => (/^[A-Za-z]{2}$/.test(v.trim()) ? null : 'Enter the two-letter country code, e.g. US or DE'),
      taxId: (v) => (v.trim() ? null : 'Enter the tax id'),
    },
  });
  const save = useMutation({
    mutationFn: async (v: Values) => unwrap(await api.PUT('/api/tax-records/{partnerId}', {
      params: { path: { partnerId } }, body: { legalName: v.legalName.trim(), country: v.country.trim().toUpperCase(), formKind: v.formKind, taxId: v.taxId.trim() },
    })),
    onSuccess: async () => {
      notify('Tax details submitted for review');
      form.setFieldValue('taxId', '');
      await queryClient.invalidateQueries({ queryKey: ['tax-records'] });
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  return (
    <Card withBorder component="section" aria-labelledby="details-title">
      <form noValidate onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
        <Stack gap="sm">
          <Title order={2} size="h4" id="details-title">{record ? 'Change your tax details' : 'Submit your tax details'}</Title>
          <Text size="sm">The tax id is stored sealed and only its last four characters are ever shown. Changing the details asks for a new signed form.</Text>
          <ErrorAlert error={save.error} shownFields={['legalName', 'country', 'formKind', 'taxId']} />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Legal name" required autoComplete="organization" {...form.getInputProps('legalName')} />
            <TextInput label="Country" description="Two letters, e.g. US or DE" required maxLength={2} autoComplete="country" {...form.getInputProps('country')} />
            <NativeSelect label="Form" data={formKinds} {...form.getInputProps('formKind')} />
            <TextInput label="Tax id" description="SSN or EIN for a W-9, your foreign tax number for a W-8, your VAT id with its country prefix"
              required autoComplete="off" {...form.getInputProps('taxId')} />
          </SimpleGrid>
          <Group><Button type="submit" loading={save.isPending}>Submit for review</Button></Group>
        </Stack>
      </form>
    </Card>
  );
}

function FormUpload({ partnerId, kind }: { partnerId: string; kind: FormKind }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const up = useMutation({
    mutationFn: async (f: File) => uploadFile<TaxRecord>(`/api/tax-records/${partnerId}/form?name=${encodeURIComponent(f.name)}`, f, 'PUT'),
    onSuccess: async () => {
      notify('Signed form uploaded');
      setFile(null);
      await queryClient.invalidateQueries({ queryKey: ['tax-records'] });
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="upload-title">
      <Stack gap="sm">
        <Title order={2} size="h4" id="upload-title">Signed form</Title>
        <Text size="sm">{kind === 'eu_vat' ? 'Optional for a VAT id.' : 'Upload the signed form as a PDF, PNG or JPEG of at most 5 MB.'}</Text>
        {up.error && <ErrorAlert error={up.error} />}
        <FilePicker label="Form file" file={file} onChange={(f) => { up.reset(); setFile(f); }} />
        <Group><Button disabled={!file} loading={up.isPending} onClick={() => { if (file) up.mutate(file); }}>Upload the form</Button></Group>
      </Stack>
    </Card>
  );
}
