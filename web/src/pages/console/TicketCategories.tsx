import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton } from '../../ui/DataConfirm';
import { notify } from '../../ui/DataNotify';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

type Category = Schemas['TicketCategory'];

/** The desk's ticket categories: the list partners and operators choose from when opening a ticket. */
export default function TicketCategories() {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Category | 'new' | null>(null);
  const remove = useMutation({
    mutationFn: async (id: string) => { unwrap(await api.DELETE('/api/ticket-categories/{id}', { params: { path: { id } } })); },
    onSuccess: async () => { notify('Category deleted'); await queryClient.invalidateQueries({ queryKey: ['ticket-categories'] }); },
  });
  return (
    <Stack>
      <PageHeader title="Ticket categories" description="What tickets are about, chosen when one is opened. A category in use cannot be deleted."
        actions={<Button onClick={() => { setEditing('new'); }}>Add category</Button>} />
      <PagedTable<Category>
        label="Ticket categories"
        queryKey={['ticket-categories', 'list']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/ticket-categories', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty="No categories yet."
        columns={[
          { header: 'Name', render: (c) => c.name },
          { header: 'Description', render: (c) => c.description ?? '—' },
          { header: 'Actions', render: (c) => (
            <Group gap="xs" wrap="nowrap">
              <Button variant="default" size="compact-sm" aria-label={`Edit ${c.name}`} onClick={() => { setEditing(c); }}>Edit</Button>
              <ConfirmButton size="compact-sm" label="Delete" aria-label={`Delete ${c.name}`} title={`Delete ${c.name}?`} confirmLabel="Delete category"
                message="Tickets can no longer be filed under it." onConfirm={() => remove.mutateAsync(c.id)} />
            </Group>
          ) },
        ]}
      />
      <Modal opened={editing !== null} onClose={() => { setEditing(null); }} title={editing === 'new' ? 'Add a category' : 'Edit category'}
        closeButtonProps={{ 'aria-label': 'Close' }}>
        {editing !== null && <CategoryForm category={editing === 'new' ? null : editing} onDone={() => { setEditing(null); }} />}
      </Modal>
    </Stack>
  );
}

function CategoryForm({ category, onDone }: { category: Category | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(category?.name ?? '');
  const [description, setDescription] = useState(category?.description ?? '');
  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), description: description.trim() };
      return category
        ? unwrap(await api.PATCH('/api/ticket-categories/{id}', { params: { path: { id: category.id } }, body }))
        : unwrap(await api.POST('/api/ticket-categories', { body }));
    },
    onSuccess: async () => { notify(category ? 'Category saved' : 'Category added'); await queryClient.invalidateQueries({ queryKey: ['ticket-categories'] }); onDone(); },
  });
  const errs = fieldErrors(save.error);
  return (
    <form onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
      <Stack>
        <TextInput label="Name" required maxLength={100} value={name} onChange={(e) => { setName(e.currentTarget.value); }} error={errs.name} data-autofocus />
        <Textarea label="Description" autosize minRows={2} maxLength={500} value={description} onChange={(e) => { setDescription(e.currentTarget.value); }} error={errs.description} />
        <ErrorAlert error={save.error} shownFields={['name', 'description']} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>Cancel</Button>
          <Button type="submit" disabled={!name.trim()} loading={save.isPending}>{category ? 'Save' : 'Add category'}</Button>
        </Group>
      </Stack>
    </form>
  );
}
