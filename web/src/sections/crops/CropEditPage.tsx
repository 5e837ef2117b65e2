// Edit a crop or an animal (owners).
import { CropEditPage } from './CropForm';

export default CropEditPage;
