import { Link } from 'react-router';
import { Anchor, Stack, Text, Title } from '@mantine/core';

export default function NotFound() {
  return (
    <Stack align="flex-start">
      <Title order={1} size="h2">Page not found</Title>
      <Text>There is no page at this address.</Text>
      <Anchor component={Link} to="/">Go to your dashboard</Anchor>
    </Stack>
  );
}
