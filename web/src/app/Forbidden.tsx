import { Link } from 'react-router';
import { Anchor, Stack, Text, Title } from '@mantine/core';

/** What a page the caller may not use shows when opened by its address. */
export default function Forbidden({ home }: { home: string }) {
  return (
    <Stack align="flex-start" data-testid="forbidden">
      <Title order={1} size="h2">You do not have access to this page</Title>
      <Text>Your account does not hold the permission this page needs. Ask an owner of your workspace if you need it.</Text>
      <Anchor component={Link} to={home}>Go to your dashboard</Anchor>
    </Stack>
  );
}
