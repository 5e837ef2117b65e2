// Edit a variety (owners); the form is in CropTypeForm.tsx.
import { CropTypeEditPage } from './CropTypeForm';

export default CropTypeEditPage;
