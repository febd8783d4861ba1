import { TicketList } from '../../ui/Desk';

/** The service desk's queue: every partner's tickets, filtered and paged. */
export default function Tickets() {
  return <TicketList face="console" />;
}
