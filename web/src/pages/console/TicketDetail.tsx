import { TicketView } from '../../ui/Desk';

/** One ticket for the desk: triage, status, the thread with internal notes, files. */
export default function TicketDetail() {
  return <TicketView face="console" />;
}
