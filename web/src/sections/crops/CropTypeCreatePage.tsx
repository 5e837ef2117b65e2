// Add a variety (owners); the form is in CropTypeForm.tsx.
import { CropTypeCreatePage } from './CropTypeForm';

export default CropTypeCreatePage;
