import { Autocomplete, Code, Group, NumberInput, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { kindTitle, type NodeKind } from './graph';

/** The part of a JSON schema the side panel reads. */
interface FieldSchema {
  type?: string | string[];
  description?: string;
  enum?: string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  examples?: unknown[];
}
interface ObjectSchema { properties?: Record<string, FieldSchema>; required?: string[] }

const words = (k: string) => k.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase()).replace(/\bHtml\b/, 'HTML').replace(/\bUrl\b/, 'URL');

/** Whether a field holds an expression (variables as names) or a template ({{.name}}). */
function fieldFlavour(key: string, f: FieldSchema): 'expression' | 'template' | 'plain' {
  const d = f.description ?? '';
  if (/expression/i.test(key) || /^(Boolean )?expression/i.test(d) || key === 'until' || (key === 'condition' && /expression/i.test(d))) return 'expression';
  if (/template/i.test(d) || key === 'to') return 'template';
  return 'plain';
}

interface Props {
  kind: NodeKind;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  /** The names this node may read, from the server's validation. */
  variables: string[];
  /** Event types of the catalogue, for event type fields. */
  eventTypes: string[];
  /** Problems of this node by parameter name. */
  problems: Map<string, string[]>;
}

/** The form of a node kind's parameters, built from the kind's schema in the OpenAPI document. */
export function ParamsForm({ kind, value, onChange, variables, eventTypes, problems }: Props) {
  const schema = kind.parameters as ObjectSchema | undefined;
  if (!schema?.properties) return <Text size="sm" c="dimmed">A {kindTitle(kind.kind)} node takes no parameters.</Text>;
  const required = new Set(schema.required ?? []);
  const set = (k: string, v: unknown) => {
    const next = Object.fromEntries(Object.entries(value).filter(([key]) => key !== k));
    if (!(v === '' || v === undefined || v === null)) next[k] = v;
    onChange(next);
  };
  return (
    <Stack gap="xs">
      {Object.entries(schema.properties).map(([key, f]) => {
        const label = words(key);
        const error = problems.get(key)?.join('; ');
        const common = { label, description: f.description, required: required.has(key), error, key };
        const type = Array.isArray(f.type) ? f.type.find((t) => t !== 'null') : f.type;
        const cur = value[key];
        if (f.enum) {
          return <Select {...common} clearable={!required.has(key)} allowDeselect={!required.has(key)} data={f.enum} value={typeof cur === 'string' ? cur : null} onChange={(v) => { set(key, v); }} />;
        }
        if (type === 'integer' || type === 'number') {
          return <NumberInput {...common} min={f.minimum} max={f.maximum} allowDecimal={type === 'number'} value={typeof cur === 'number' ? cur : ''}
            onChange={(v) => { set(key, typeof v === 'number' ? v : undefined); }} />;
        }
        const text = typeof cur === 'string' ? cur : '';
        if (/eventType|^type$/.test(key) && /event type/i.test(f.description ?? '')) {
          return <Autocomplete {...common} data={eventTypes} value={text} onChange={(v) => { set(key, v); }} />;
        }
        const flavour = fieldFlavour(key, f);
        const insert = flavour !== 'plain' && variables.length > 0 && (
          <Select size="xs" w={220} aria-label={`Insert a variable into ${label}`} placeholder="Insert a variable…" searchable data={variables} value={null}
            onChange={(v) => { if (v) set(key, text + (flavour === 'template' ? `{{.${v}}}` : v)); }} />
        );
        const big = (f.maxLength ?? 0) > 2000;
        return (
          <Stack gap={2} key={key}>
            {big
              ? <Textarea {...common} autosize minRows={2} maxRows={8} maxLength={f.maxLength} value={text} onChange={(e) => { set(key, e.currentTarget.value); }} />
              : <TextInput {...common} maxLength={f.maxLength} value={text} onChange={(e) => { set(key, e.currentTarget.value); }} />}
            {insert && <Group gap={4} justify="space-between"><Text size="xs" c="dimmed">{flavour === 'template' ? <>Template: <Code>{'{{.event.payload.x}}'}</Code></> : 'Expression'}</Text>{insert}</Group>}
          </Stack>
        );
      })}
    </Stack>
  );
}
