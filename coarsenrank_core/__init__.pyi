"""Type stub of the package's public names (``__init__.py`` loads them on first use)."""

from .alpha import (
    AlphaChoice as AlphaChoice,
)
from .alpha import (
    choose_alpha as choose_alpha,
)
from .comparison import (
    ComparisonResult as ComparisonResult,
)
from .comparison import (
    compare as compare,
)
from .dic import (
    DICResult as DICResult,
)
from .dic import (
    dic_sweep as dic_sweep,
)
from .errors import (
    PreferenceFormatError as PreferenceFormatError,
)
from .fitters import (
    coarsen_bt as coarsen_bt,
)
from .fitters import (
    coarsen_pl as coarsen_pl,
)
from .fitters import (
    coarsen_pl_gibbs as coarsen_pl_gibbs,
)
from .fitters import (
    coarsen_th as coarsen_th,
)
from .fitters import (
    pl_em as pl_em,
)
from .io import (
    FORMATS as FORMATS,
)
from .io import (
    ReadOptions as ReadOptions,
)
from .io import (
    ReadReport as ReadReport,
)
from .io import (
    detect_format as detect_format,
)
from .io import (
    example_file as example_file,
)
from .io import (
    read_file as read_file,
)
from .io import (
    read_preferences as read_preferences,
)
from .io import (
    read_truth as read_truth,
)
from .metrics import (
    kendall_tau_b as kendall_tau_b,
)
from .metrics import (
    pairwise_accuracy as pairwise_accuracy,
)
from .models.plackett_luce import (
    pl_log_likelihood as pl_log_likelihood,
)
from .models.plackett_luce import (
    tempered_log_posterior as tempered_log_posterior,
)
from .preferences import (
    Preferences as Preferences,
)
from .preferences import (
    PreferenceSummary as PreferenceSummary,
)
from .registry import (
    METHODS as METHODS,
)
from .registry import (
    run_method as run_method,
)
from .results import (
    PosteriorResult as PosteriorResult,
)
from .results import (
    RankingResult as RankingResult,
)
from .results import (
    tempering as tempering,
)
from .simulate import (
    simulate_pl as simulate_pl,
)

__all__: list[str]
__version__: str
