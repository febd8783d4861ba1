import { Link } from 'react-router';
import { Anchor, Center, Stack, Text, Title } from '@mantine/core';

export default function NotFound() {
  return (
    <Center component="main" mih="100vh">
      <Stack align="center">
        <Title order={1}>Page not found</Title>
        <Text>There is no page at this address.</Text>
        <Anchor component={Link} to="/">Go to the dashboard</Anchor>
      </Stack>
    </Center>
  );
}
