import { TriangleAlert } from 'lucide-react';
import { StatePanel } from '../ui/StatePanel';

export function GuidesError() {
  return (
    <StatePanel
      tone="error"
      icon={TriangleAlert}
      title="Error Loading Guides"
      text="Failed to load guides. Please try again later."
      testId="guides-error"
    />
  );
}
