import { notifications } from '@mantine/notifications';

/** Tells the person that something was done (green) or finished with a warning (orange). */
export function notify(message: string, color: 'green' | 'orange' | 'red' = 'green') {
  notifications.show({ color, message, closeButtonProps: { 'aria-label': 'Dismiss' } });
}
