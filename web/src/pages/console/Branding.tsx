import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { ActionIcon, Box, Button, Card, ColorInput, Group, Image, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FilePicker } from '../../ui/FilePicker';
import { PageHeader } from '../../ui/PageHeader';
import { formatBytes, uploadFile } from '../../ui/files';

type Brand = Schemas['Branding'];
type ColourKey = 'primary' | 'accent' | 'background' | 'text';
interface CSSVar { name: string; value: string }
interface FormValues { name: string; supportEmail: string; theme: Record<ColourKey, string>; cssVariables: CSSVar[] }

const colours: { key: ColourKey; label: string }[] = [
  { key: 'primary', label: 'Primary colour' },
  { key: 'accent', label: 'Accent colour' },
  { key: 'background', label: 'Background colour' },
  { key: 'text', label: 'Text colour' },
];
const HEX = /^#[0-9a-fA-F]{6}$/;
const VAR_NAME = /^--[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_VARS = 30;

function valuesOf(b: Brand): FormValues {
  return {
    name: b.name, supportEmail: b.supportEmail,
    theme: { primary: b.theme.primary ?? '', accent: b.theme.accent ?? '', background: b.theme.background ?? '', text: b.theme.text ?? '' },
    cssVariables: Object.entries(b.cssVariables).map(([name, value]) => ({ name, value })),
  };
}

function BrandForm({ brand, canWrite }: { brand: Brand; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const form = useForm<FormValues>({
    initialValues: valuesOf(brand),
    validate: {
      theme: {
        primary: (v) => (v === '' || HEX.test(v) ? null : 'A colour as #rrggbb'),
        accent: (v) => (v === '' || HEX.test(v) ? null : 'A colour as #rrggbb'),
        background: (v) => (v === '' || HEX.test(v) ? null : 'A colour as #rrggbb'),
        text: (v) => (v === '' || HEX.test(v) ? null : 'A colour as #rrggbb'),
      },
      cssVariables: {
        name: (v) => (VAR_NAME.test(v) ? null : 'A name like --brand-radius'),
        value: (v) => (v.trim() && v.length <= 100 ? null : 'A value of at most 100 characters'),
      },
    },
  });
  const save = useMutation({
    mutationFn: async (v: FormValues) => {
      const theme: Schemas['Theme'] = {};
      for (const c of colours) if (v.theme[c.key]) theme[c.key] = v.theme[c.key];
      return unwrap(await api.PATCH('/api/settings/branding', {
        body: { name: v.name.trim(), supportEmail: v.supportEmail.trim(), theme, cssVariables: v.cssVariables.map((c) => ({ name: c.name.trim(), value: c.value.trim() })) },
      }));
    },
    onSuccess: (b) => {
      notify('Brand saved');
      queryClient.setQueryData(['branding'], b);
      form.setValues(valuesOf(b));
      form.resetDirty(valuesOf(b));
    },
    onError: (err) => { form.setErrors(fieldErrors(err)); },
  });
  const ro = !canWrite;
  return (
    <Card withBorder component="form" onSubmit={form.onSubmit((v) => { save.mutate(v); })}>
      <Stack>
        <Title order={2} size="h4">Portal brand</Title>
        <ErrorAlert error={save.error} shownFields={['name', 'supportEmail', 'theme', 'cssVariables']} />
        <TextInput label="Portal name" description="Shown to partners; your program's name when empty" maxLength={100} disabled={ro} {...form.getInputProps('name')} />
        <TextInput label="Support email" type="email" maxLength={254} description="Where partners write for help; empty removes it" disabled={ro} {...form.getInputProps('supportEmail')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {colours.map((c) => (
            <ColorInput key={c.key} label={c.label} format="hex" placeholder="Product default" disabled={ro}
              eyeDropperButtonProps={{ 'aria-label': `Pick the ${c.label.toLowerCase()} from the screen` }}
              swatches={['#1f6feb', '#0b7a3b', '#c2410c', '#6d28d9', '#111827', '#ffffff']} {...form.getInputProps(`theme.${c.key}`)} />
          ))}
        </SimpleGrid>
        <Stack gap="xs">
          <Text size="sm" fw={500}>CSS variables</Text>
          <Text size="xs" c="dimmed">Plain values only (lengths, colours, numbers, keywords, rgb(), hsl(), calc(), var()); never url(), strings or blocks. At most {MAX_VARS}.</Text>
          {form.values.cssVariables.map((_, i) => (
            <Group key={i} align="flex-start" wrap="nowrap">
              <TextInput aria-label={`Variable ${String(i + 1)} name`} placeholder="--brand-radius" maxLength={50} disabled={ro} style={{ flex: 1 }}
                {...form.getInputProps(`cssVariables.${String(i)}.name`)} />
              <TextInput aria-label={`Variable ${String(i + 1)} value`} placeholder="8px" maxLength={100} disabled={ro} style={{ flex: 1 }}
                {...form.getInputProps(`cssVariables.${String(i)}.value`)} />
              {canWrite && (
                <ActionIcon variant="subtle" color="red.9" size="lg" aria-label={`Remove variable ${String(i + 1)}`}
                  onClick={() => { form.removeListItem('cssVariables', i); }}>×</ActionIcon>
              )}
            </Group>
          ))}
          {canWrite && form.values.cssVariables.length < MAX_VARS && (
            <Box><Button variant="light" size="compact-sm" onClick={() => { form.insertListItem('cssVariables', { name: '', value: '' }); }}>Add variable</Button></Box>
          )}
        </Stack>
        {canWrite && (
          <Group justify="flex-end">
            <Button variant="default" disabled={!form.isDirty()} onClick={() => { form.reset(); }}>Discard</Button>
            <Button type="submit" loading={save.isPending} disabled={!form.isDirty()}>Save brand</Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** The tenant's logo or favicon: its preview, an upload and its removal. */
function BrandImageCard({ kind, brand, canWrite }: { kind: 'logo' | 'favicon'; brand: Brand; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const current = kind === 'logo' ? brand.logo : brand.favicon;
  const label = kind === 'logo' ? 'Logo' : 'Favicon';
  // A data: address (the console's CSP allows images from itself and data: only).
  const pick = (f: File | null) => {
    setFile(f);
    setPreview(null);
    if (!f) return;
    const reader = new FileReader();
    reader.onload = () => { setPreview(typeof reader.result === 'string' ? reader.result : null); };
    reader.readAsDataURL(f);
  };
  const upload = useMutation({
    mutationFn: async (f: File) => uploadFile<Brand>(`/api/settings/branding/${kind}`, f, 'PUT'),
    onSuccess: (b) => { queryClient.setQueryData(['branding'], b); pick(null); notify(`${label} uploaded`); },
  });
  const remove = async () => {
    const b = unwrap(await api.DELETE('/api/settings/branding/{kind}', { params: { path: { kind } } }));
    queryClient.setQueryData(['branding'], b);
    notify(`${label} removed`);
  };
  const limits = kind === 'logo'
    ? `PNG, JPEG or GIF (not SVG), at most ${formatBytes(512 * 1024)}, 16 to 2048 pixels a side.`
    : `PNG, JPEG or GIF (not SVG), square, at most ${formatBytes(64 * 1024)}, 16 to 512 pixels a side.`;
  const size = kind === 'logo' ? 64 : 32;
  return (
    <Card withBorder>
      <Stack>
        <Title order={2} size="h4">{label}</Title>
        <Group align="center">
          {current
            ? <Image src={current.url} alt={`Current ${kind}`} h={size} w="auto" fit="contain" />
            : <Text size="sm" c="dimmed">No {kind} yet.</Text>}
          {current && <Text size="xs" c="dimmed">{current.width}×{current.height} px, {current.contentType}</Text>}
        </Group>
        {canWrite && (
          <>
            <FilePicker label={`New ${kind}`} description={limits} file={file} onChange={pick} />
            {preview && <Image src={preview} alt={`Preview of the new ${kind}`} h={size} w="auto" fit="contain" />}
            <ErrorAlert error={upload.error} />
            <Group justify="flex-end">
              {current && <ConfirmButton label={`Remove ${kind}`} title={`Remove the ${kind}?`} message={`The portal shows no ${kind} until a new one is uploaded.`}
                confirmLabel="Remove" onConfirm={remove} />}
              <Button disabled={!file} loading={upload.isPending} onClick={() => { if (file) upload.mutate(file); }}>Upload {kind}</Button>
            </Group>
          </>
        )}
      </Stack>
    </Card>
  );
}

/** The tenant's portal brand: its name, colours, support email, CSS variables, logo and favicon. */
export default function Branding() {
  const canWrite = useCan('branding:write');
  const brand = useQuery({ queryKey: ['branding'], queryFn: async () => unwrap(await api.GET('/api/settings/branding')) });
  return (
    <Stack>
      <PageHeader title="Branding" description="How your partner portal looks: its name, colours, logo and favicon." />
      {brand.isPending && <Loader role="status" aria-label="Loading the brand" />}
      {brand.isError && <ErrorAlert error={brand.error} />}
      {brand.data && (
        <>
          <BrandForm brand={brand.data} canWrite={canWrite} />
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <BrandImageCard kind="logo" brand={brand.data} canWrite={canWrite} />
            <BrandImageCard kind="favicon" brand={brand.data} canWrite={canWrite} />
          </SimpleGrid>
          <Card withBorder>
            <Stack gap="xs">
              <Title order={2} size="h4">Allowed origins</Title>
              <Text size="sm">Browsers may call the API with credentials from your verified custom domains (https only); add and verify them on the Domains page.</Text>
            </Stack>
          </Card>
        </>
      )}
    </Stack>
  );
}
