import { TriangleAlert, SearchX } from 'lucide-react';
import { StatePanel } from '../ui/StatePanel';

export function CommandsError() {
  return (
    <StatePanel
      tone="error"
      icon={TriangleAlert}
      title="Error Loading Commands"
      text="Failed to load commands. Please try again later."
      testId="commands-error"
    />
  );
}

export function CommandsEmpty() {
  return (
    <StatePanel
      tone="empty"
      icon={SearchX}
      title="No commands found"
      text="Try adjusting your search or filter criteria"
      testId="commands-empty"
    />
  );
}
