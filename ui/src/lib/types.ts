// The shapes the server answers, by the names the UI uses: each is the type generated from the server's
// OpenAPI document (lib/api/schema.d.ts, `npm run types`), so a change on the server is a type error here.
import type { components } from './api/schema';

type Schemas = components['schemas'];

export type Command = Schemas['Command'];
export type Permission = Command['permission'];

export type Guide = Schemas['Guide'];
export type GuideCategory = Guide['category'];
export type Difficulty = Guide['difficulty'];

export type Health = Schemas['Health'];
export type PublicStats = Schemas['PublicStats'];

export type Banner = Schemas['Banner'];
export type AiAnalysis = Schemas['AdAnalysis'];
/** The sponsored advertisement the bottom banner and the fullscreen ad show. */
export type Advertisement = Schemas['SponsoredAd'];
export type ActiveBannerResponse = Schemas['ActiveBanner'];

export type SiteSettings = Schemas['SiteSettings'];
export type LinkItem = Schemas['OfficialLink'];
export type TitledText = Schemas['TitledText'];
export type PageText = Schemas['PageText'];

export type User = Schemas['User'];
export type Role = User['role'];
export type Favorite = Schemas['Favorite'];
