import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Badge, Button, Card, Checkbox, Code, FileInput, Group, Loader, Modal, MultiSelect, NativeSelect, Stack, Text, TextInput, Textarea, Title,
} from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { kindLabel, requiredOf, useAgreementDocument, type AgreementVersion } from '../../ui/agreementData';
import { AgreementText } from '../../ui/Agreements';
import { Certificate } from '../../ui/AgreementCertificate';
import { PartnerName, PartnerSelect } from '../../ui/DataPartnerSelect';
import { notify } from '../../ui/DataNotify';
import { DateTime } from '../../ui/DateTime';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { downloadFile, qs, uploadFile } from '../../ui/files';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { dayToISO, today } from '../../ui/portal';
import { StatusBadge } from '../../ui/StatusBadge';
import { useLevels } from './partnerOptions';

type Acceptance = Schemas['AgreementAcceptance'];
interface Requirement { allPartners: boolean; levels: string[]; from: string }

/** One agreement: its versions (write, publish), which version partners must accept, and who accepted. */
export default function AgreementDetail() {
  const { id = '' } = useParams();
  const canManage = useCan('agreements:manage');
  const [shown, setShown] = useState<string | null>(null);
  const [writing, setWriting] = useState(false);
  const [uploading, setUploading] = useState(false);
  const agreement = useQuery({
    queryKey: ['agreements', 'one', id], retry: false,
    queryFn: async () => unwrap(await api.GET('/api/agreements/{id}', { params: { path: { id } } })),
  });
  const versions = useQuery({
    queryKey: ['agreements', 'versions', id],
    queryFn: async () => unwrap(await api.GET('/api/agreements/{id}/versions', { params: { path: { id }, query: { limit: 100 } } })),
  });
  if (agreement.isPending) return <Loader aria-label="Loading agreement" />;
  if (agreement.isError) return <ErrorAlert error={agreement.error} />;
  const a = agreement.data;
  const list = versions.data?.data ?? [];
  const latest = list.at(-1);
  const current = list.find((v) => v.id === shown) ?? latest;
  const published = list.filter((v) => v.status === 'published');
  return (
    <Stack>
      <PageHeader title={a.title} description={<>{kindLabel(a.kind)}{a.description ? ` · ${a.description}` : ''}</>}
        actions={canManage && (
          <Group gap="xs">
            <Button variant="default" onClick={() => { setUploading(true); }}>Upload a PDF version</Button>
            <Button onClick={() => { setWriting(true); }}>Write a new version</Button>
          </Group>
        )} />
      <Card withBorder component="section" aria-labelledby="req-title">
        <Stack gap="xs">
          <Title order={2} size="h4" id="req-title">Requirement</Title>
          <Text size="sm" data-testid="requirement">
            {a.requirement
              ? <>Version {a.requirement.versionNumber} must be accepted by {requiredOf(a.requirement)}, refusing deal registration and withdrawals from <DateTime value={a.requirement.from} />.</>
              : 'Partners are not required to accept this agreement.'}
          </Text>
          {canManage && published.length > 0 && <RequirementForm agreement={a} published={published} />}
        </Stack>
      </Card>
      <Card withBorder component="section" aria-labelledby="versions-title">
        <Stack gap="xs">
          <Title order={2} size="h4" id="versions-title">Versions</Title>
          <ErrorAlert error={versions.error} />
          {list.length === 0 && <Text size="sm" c="dimmed">No version yet. Write the first one.</Text>}
          {list.length > 0 && (
            <NativeSelect label="Version shown" value={current?.id ?? ''} onChange={(e) => { setShown(e.currentTarget.value); }}
              data={list.map((v) => ({ value: v.id, label: `Version ${String(v.number)} · ${v.status}${v.summary ? ` · ${v.summary}` : ''}` }))} />
          )}
          {current && <VersionPanel agreementId={id} version={current} canManage={canManage} />}
        </Stack>
      </Card>
      <Acceptances agreementId={id} versions={published} />
      <Modal opened={uploading} onClose={() => { setUploading(false); }} title="Upload a PDF version" closeButtonProps={{ 'aria-label': 'Close' }}>
        {uploading && <PDFVersionForm agreementId={id} onDone={(v) => { setUploading(false); setShown(v.id); }} />}
      </Modal>
      <Modal opened={writing} onClose={() => { setWriting(false); }} title="Write a new version" size="xl" closeButtonProps={{ 'aria-label': 'Close' }}>
        {writing && <VersionForm agreementId={id} from={latest} onDone={(v) => { setWriting(false); setShown(v.id); }} />}
      </Modal>
    </Stack>
  );
}

function VersionPanel({ agreementId, version: v, canManage }: { agreementId: string; version: AgreementVersion; canManage: boolean }) {
  const [publishing, setPublishing] = useState(false);
  return (
    <Stack gap="xs" data-testid="version-panel">
      <Group gap="xs">
        <Text fw={600}>Version {v.number}</Text>
        <StatusBadge status={v.status} />
        <Text size="sm" c="dimmed">{v.status === 'published' && v.publishedAt ? <>Published <DateTime value={v.publishedAt} /> · read-only</> : <>Draft written <DateTime value={v.createdAt} /></>}</Text>
      </Group>
      <AgreementText agreementId={agreementId} versionId={v.id} sha256={v.sha256} label={`Text of version ${String(v.number)}`}
        contentType={v.contentType} fileName={v.fileName} />
      {v.status === 'draft' && canManage && (
        <Group>
          <Button onClick={() => { setPublishing(true); }}>Publish version {v.number}</Button>
          <Text size="xs" c="dimmed">A draft is not changed: write a new version to amend it.</Text>
        </Group>
      )}
      <Modal opened={publishing} onClose={() => { setPublishing(false); }} title={`Publish version ${String(v.number)}?`} closeButtonProps={{ 'aria-label': 'Close' }}>
        {publishing && <PublishForm agreementId={agreementId} version={v} onDone={() => { setPublishing(false); }} />}
      </Modal>
    </Stack>
  );
}

function VersionForm({ agreementId, from, onDone }: { agreementId: string; from: AgreementVersion | undefined; onDone: (v: AgreementVersion) => void }) {
  const queryClient = useQueryClient();
  const base = useAgreementDocument(agreementId, from?.id);
  const [markdown, setMarkdown] = useState<string | null>(null);
  const [summary, setSummary] = useState('');
  const text = markdown ?? base.data ?? '';
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreements/{id}/versions', { params: { path: { id: agreementId } }, body: { markdown: text, summary: summary.trim() || undefined } })),
    onSuccess: async (v) => { notify(`Draft version ${String(v.number)} saved`); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); onDone(v); },
  });
  const errs = fieldErrors(create.error);
  return (
    <form onSubmit={(e) => { e.preventDefault(); create.mutate(); }}>
      <Stack>
        <Textarea label="Text (Markdown)" description="Partners read this exact text; its SHA-256 is over these bytes. Starts from the latest version." required autosize minRows={12} maxRows={24}
          value={text} onChange={(e) => { setMarkdown(e.currentTarget.value); }} error={errs.markdown} styles={{ input: { fontFamily: 'monospace' } }} />
        <TextInput label="What changed" maxLength={2000} value={summary} onChange={(e) => { setSummary(e.currentTarget.value); }} error={errs.summary} />
        <ErrorAlert error={create.error} shownFields={['markdown', 'summary']} />
        <Group justify="flex-end"><Button type="submit" disabled={!text.trim()} loading={create.isPending}>Save draft</Button></Group>
      </Stack>
    </form>
  );
}

/** A PDF as the agreement's next draft version: partners accept its exact bytes, by their SHA-256. */
function PDFVersionForm({ agreementId, onDone }: { agreementId: string; onDone: (v: AgreementVersion) => void }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [summary, setSummary] = useState('');
  const upload = useMutation({
    mutationFn: async (f: File) => uploadFile<AgreementVersion>(
      `/api/agreements/${encodeURIComponent(agreementId)}/pdf-versions${qs({ fileName: f.name, summary: summary.trim() || undefined })}`, f),
    onSuccess: async (v) => { notify(`Draft version ${String(v.number)} saved`); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); onDone(v); },
  });
  return (
    <form onSubmit={(e) => { e.preventDefault(); if (file) upload.mutate(file); }}>
      <Stack>
        <FileInput label="PDF document" description="Partners download this exact file; its SHA-256 is over its bytes. At most 20 MiB." required
          accept="application/pdf" value={file} onChange={setFile} clearable />
        <TextInput label="What changed" maxLength={2000} value={summary} onChange={(e) => { setSummary(e.currentTarget.value); }} />
        <ErrorAlert error={upload.error} />
        <Group justify="flex-end"><Button type="submit" disabled={!file} loading={upload.isPending}>Save draft</Button></Group>
      </Stack>
    </form>
  );
}

/** Which partners must accept and from when, as chosen in a form. */
function RequirementFields({ value, onChange }: { value: Requirement; onChange: (r: Requirement) => void }) {
  const levels = useLevels();
  return (
    <Stack gap="xs">
      <Checkbox label="All partners" checked={value.allPartners} onChange={(e) => { onChange({ ...value, allPartners: e.currentTarget.checked }); }} />
      <MultiSelect label="Partners at these levels" disabled={value.allPartners} searchable clearable
        data={(levels.data ?? []).map((l) => l.name)} value={value.levels} onChange={(l) => { onChange({ ...value, levels: l }); }} />
      <TextInput label="Effective from" type="date" description="From this day partners that have not accepted are refused deal registration and withdrawals"
        value={value.from} onChange={(e) => { onChange({ ...value, from: e.currentTarget.value }); }} />
    </Stack>
  );
}

const requirementBody = (r: Requirement) => ({ allPartners: r.allPartners || undefined, levels: r.allPartners ? undefined : r.levels, from: dayToISO(r.from) });

function PublishForm({ agreementId, version: v, onDone }: { agreementId: string; version: AgreementVersion; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [require, setRequire] = useState(true);
  const [req, setReq] = useState<Requirement>({ allPartners: false, levels: [], from: today() });
  const publish = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreements/{id}/versions/{versionId}/publish', {
      params: { path: { id: agreementId, versionId: v.id } }, body: { require: require ? requirementBody(req) : undefined },
    })),
    onSuccess: async () => { notify(`Version ${String(v.number)} published`); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); onDone(); },
  });
  return (
    <Stack>
      <Text size="sm">A published version never changes. Its SHA-256 is <Code style={{ overflowWrap: 'anywhere' }}>{v.sha256}</Code>.</Text>
      <Checkbox label="Require partners to accept it (they are asked by email and in the portal)" checked={require} onChange={(e) => { setRequire(e.currentTarget.checked); }} />
      {require && <RequirementFields value={req} onChange={setReq} />}
      <ErrorAlert error={publish.error} />
      <Group justify="flex-end">
        <Button variant="default" onClick={onDone}>Cancel</Button>
        <Button loading={publish.isPending} disabled={require && !req.allPartners && req.levels.length === 0} onClick={() => { publish.mutate(); }}>Publish</Button>
      </Group>
    </Stack>
  );
}

function RequirementForm({ agreement: a, published }: { agreement: Schemas['Agreement']; published: AgreementVersion[] }) {
  const queryClient = useQueryClient();
  const r = a.requirement;
  const [open, setOpen] = useState(false);
  const [versionId, setVersionId] = useState(r?.versionId ?? published.at(-1)?.id ?? '');
  const [req, setReq] = useState<Requirement>({ allPartners: r?.allPartners ?? false, levels: r?.levels ?? [], from: r ? r.from.slice(0, 10) : today() });
  const save = useMutation({
    mutationFn: async (body: { versionId?: string } & ReturnType<typeof requirementBody>) =>
      unwrap(await api.PUT('/api/agreements/{id}/requirement', { params: { path: { id: a.id } }, body })),
    onSuccess: async (_, body) => { notify(body.versionId ? 'Requirement saved' : 'Partners are no longer required to accept'); await queryClient.invalidateQueries({ queryKey: ['agreements'] }); setOpen(false); },
  });
  return (
    <>
      <Group>
        <Button variant="default" onClick={() => { setOpen(true); }}>Change the requirement</Button>
        {r && <Button variant="outline" color="red.9" loading={save.isPending} onClick={() => { save.mutate({ versionId: '', allPartners: undefined, levels: undefined, from: undefined }); }}>Stop requiring</Button>}
      </Group>
      {!open && <ErrorAlert error={save.error} />}
      <Modal opened={open} onClose={() => { setOpen(false); }} title="Change the requirement" closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack>
          <NativeSelect label="Version partners must accept" value={versionId} onChange={(e) => { setVersionId(e.currentTarget.value); }}
            data={published.map((v) => ({ value: v.id, label: `Version ${String(v.number)}` }))} />
          <RequirementFields value={req} onChange={setReq} />
          <ErrorAlert error={save.error} />
          <Group justify="flex-end">
            <Button loading={save.isPending} disabled={!versionId || (!req.allPartners && req.levels.length === 0)}
              onClick={() => { save.mutate({ versionId, ...requirementBody(req) }); }}>Save requirement</Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function Acceptances({ agreementId, versions }: { agreementId: string; versions: AgreementVersion[] }) {
  const [versionId, setVersionId] = useState('');
  const [partnerId, setPartnerId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [cert, setCert] = useState<Acceptance | null>(null);
  const [recording, setRecording] = useState(false);
  const canAccept = useCan('agreements:accept');
  const filter = { agreementId, versionId: versionId || undefined, partnerId: partnerId ?? undefined };
  const exportCsv = useMutation({
    mutationFn: () => downloadFile(`/api/agreement-acceptances/export${qs(filter)}`, 'acceptances.csv'),
    onError: setError,
  });
  return (
    <Card withBorder component="section" aria-labelledby="acc-title">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4" id="acc-title">Acceptances</Title>
          <Group gap="xs">
            {canAccept && versions.length > 0 && <Button variant="default" onClick={() => { setRecording(true); }}>Record an acceptance</Button>}
            <Button variant="default" loading={exportCsv.isPending} onClick={() => { setError(null); exportCsv.mutate(); }}>Export CSV</Button>
          </Group>
        </Group>
        <Group gap="sm" align="flex-end">
          <NativeSelect label="Version" value={versionId} onChange={(e) => { setVersionId(e.currentTarget.value); }}
            data={[{ value: '', label: 'All versions' }, ...versions.map((v) => ({ value: v.id, label: `Version ${String(v.number)}` }))]} />
          <PartnerSelect label="Partner" clearable value={partnerId} onChange={(p) => { setPartnerId(p || null); }} />
        </Group>
        <ErrorAlert error={error} />
        <PagedTable<Acceptance>
          label="Acceptances"
          queryKey={['agreements', 'acceptances', filter]}
          fetchPage={async (cursor) => unwrap(await api.GET('/api/agreement-acceptances', { params: { query: { ...filter, cursor, limit: 25 } } }))}
          rowKey={(x) => x.id}
          empty="Nobody has accepted yet."
          columns={[
            { header: 'Partner', render: (x) => <PartnerName id={x.partnerId} /> },
            { header: 'Version', render: (x) => <>v{x.versionNumber}{x.onBehalf && <Badge ml="xs" size="sm" variant="light">on behalf</Badge>}</> },
            { header: 'Accepted', render: (x) => <DateTime value={x.acceptedAt} /> },
            { header: 'From', render: (x) => <Text size="xs" style={{ overflowWrap: 'anywhere' }}>{x.clientAddress}</Text> },
            { header: 'Certificate', render: (x) => <Button size="compact-sm" variant="light" aria-label={`Certificate of acceptance ${x.id}`} onClick={() => { setCert(x); }}>Certificate</Button> },
          ]}
        />
      </Stack>
      <Modal opened={recording} onClose={() => { setRecording(false); }} title="Record an acceptance on a partner's behalf" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {recording && <RecordAcceptance agreementId={agreementId} versions={versions} onDone={(a) => { setRecording(false); setCert(a); }} />}
      </Modal>
      <Modal opened={!!cert} onClose={() => { setCert(null); }} title="Acceptance certificate" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
        {cert && <Certificate acceptance={cert} />}
      </Modal>
    </Card>
  );
}

/**
 * Records an acceptance a partner gave outside the portal (on paper, by email): the version, the
 * partner, and the document's SHA-256 as this page shows it, so that a version changed meanwhile
 * is refused rather than recorded.
 */
function RecordAcceptance({ agreementId, versions, onDone }: { agreementId: string; versions: AgreementVersion[]; onDone: (a: Acceptance) => void }) {
  const queryClient = useQueryClient();
  const [versionId, setVersionId] = useState(versions[versions.length - 1]?.id ?? '');
  const [partnerId, setPartnerId] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const version = versions.find((v) => v.id === versionId);
  const record = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/agreements/{id}/versions/{versionId}/accept', {
      params: { path: { id: agreementId, versionId } }, body: { partnerId, sha256: version?.sha256 ?? '' },
    })),
    onSuccess: async (a) => {
      notify(`Acceptance of version ${String(a.versionNumber)} recorded`);
      await queryClient.invalidateQueries({ queryKey: ['agreements'] });
      onDone(a);
    },
  });
  return (
    <form onSubmit={(e) => { e.preventDefault(); record.mutate(); }}>
      <Stack>
        <Text size="sm">For an acceptance the partner gave outside the portal. It is recorded as given on the partner's behalf, by you, with this browser's address.</Text>
        <ErrorAlert error={record.error} />
        <NativeSelect label="Version accepted" required value={versionId} onChange={(e) => { setVersionId(e.currentTarget.value); }}
          data={versions.map((v) => ({ value: v.id, label: `Version ${String(v.number)}${v.summary ? ` · ${v.summary}` : ''}` }))} />
        {version && <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>Document SHA-256: <Code>{version.sha256}</Code></Text>}
        <PartnerSelect label="Partner" required value={partnerId} onChange={(p) => { setPartnerId(p); }} />
        <Checkbox label="The partner accepted this version" checked={confirmed} onChange={(e) => { setConfirmed(e.currentTarget.checked); }} />
        <Group justify="flex-end">
          <Button type="submit" disabled={!versionId || !partnerId || !confirmed} loading={record.isPending}>Record acceptance</Button>
        </Group>
      </Stack>
    </form>
  );
}
