import { TicketView } from '../../ui/Desk';

/** One of the partner's tickets: the thread (never the desk's internal notes), replies, files. */
export default function Ticket() {
  return <TicketView face="portal" />;
}
