import { TicketList } from '../../ui/Desk';

/** The partner's own support tickets. */
export default function Tickets() {
  return <TicketList face="portal" />;
}
