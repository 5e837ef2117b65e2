// Add a crop or an animal (owners); the form is in CropForm.tsx.
import { CropCreatePage } from './CropForm';

export default CropCreatePage;
